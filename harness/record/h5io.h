// h5io.h — moving Attrs and Tables (table.h) in and out of HDF5, and the crash-safe whole-file
// write every scalebench result file goes through. Every HDF5 call is checked; a failure throws
// scalebench::Error naming the file and object. No schema knowledge here (run_file.cpp and
// study/study_file.cpp know the layouts).
//
// Tables are 1-D compound datasets (one member per column: int64, float64 or variable-length UTF-8
// string), so `pandas.DataFrame(f["epochs"][()])` reads one in a line. Reading is by member name,
// one member at a time: members this version does not know are skipped, missing ones are absent.
#pragma once

#include <hdf5.h>

#include <functional>
#include <string>
#include <vector>

#include "harness/data/h5util.h"
#include "harness/record/table.h"

namespace scalebench::record::h5 {

using data::detail::H5Id;

// Writes `path` as a whole: fill(file) populates a new file built in memory, whose bytes replace
// `path` through write_file_atomically (kernels/common/write_file.h: a temporary file, fsync'ed and
// renamed; a reader, a crash or SIGKILL sees the previous complete file or the new one). HDF5
// never writes to disk here: a full disk fails that plain write(), removes the .tmp and throws
// "cannot write <path>.tmp (N bytes): disk full (No space left on device)".
void write_file_atomically(const std::string& path, const std::function<void(hid_t file)>& fill);
// The two halves of it: the file's bytes, built in memory (HDF5 calls), and their atomic replace of
// `path` (write_file_atomically: no HDF5, so a thread may call it while another thread uses HDF5, as
// the run file's stop mark does, stop_mark.h). durable = false skips the fsyncs (AtomicWrite::durable).
std::vector<unsigned char> build_file_image(const std::string& path, const std::function<void(hid_t file)>& fill);
void write_image_atomically(const std::string& path, const std::vector<unsigned char>& image, bool durable = true);

// Opens an existing file read-only. Throws naming the file: missing, not HDF5, or unreadable.
H5Id open_for_read(const std::string& path);

bool exists(hid_t loc, const char* name);                  // a link `name` under loc
H5Id create_group(hid_t loc, const char* name, const std::string& where);
H5Id open_group(hid_t loc, const char* name, const std::string& where);  // invalid id if absent

void write_attrs(hid_t obj, const Attrs& attrs, const std::string& where);
// Every scalar integer, float or string attribute of obj (others are skipped).
Attrs read_attrs(hid_t obj, const std::string& where);

void write_table(hid_t loc, const char* name, const Table& table, const std::string& where);
Table read_table(hid_t loc, const char* name, const std::string& where);

// A row-major 2-D float64 dataset (rows may be 0).
void write_matrix(hid_t loc, const char* name, std::size_t rows, std::size_t cols, const std::vector<double>& v,
                  const std::string& where);
std::vector<double> read_matrix(hid_t loc, const char* name, std::size_t& rows, std::size_t& cols,
                                const std::string& where);

}  // namespace scalebench::record::h5
