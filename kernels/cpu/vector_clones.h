// vector_clones.h — SB_VECTOR_CLONES: compile a memory-bound loop for AVX-512, AVX2 and the build's
// baseline and let the loader pick the widest the CPU has (GCC/Clang `target_clones`), so a portable
// build still streams at the machine's vector width. Elsewhere (aarch64, other compilers) it expands to
// nothing and the loop is built once for the baseline.
// Deliberately only for loops whose result cannot depend on the version chosen: comparisons, selects,
// max, independent lane sums of a fixed order. Not for arithmetic the compiler may contract into FMA
// (an optimizer step): that would make a result depend on which CPU ran it.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(SB_NO_VECTOR_CLONES)
#define SB_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SB_VECTOR_CLONES
#endif
