// read_file.h — a whole text file as a string, for the readers of small inputs (--config, sweep
// specs, Slurm profiles, commbench files). Refuses a folder or an unreadable file with one error
// "<what>: <reason>" (the reason from errno: "No such file or directory", "Is a directory", ...);
// std::ifstream alone opens a folder and reads it as empty, which once trained the defaults for
// `--config SOMEFOLDER`. Not for large or binary data (HDF5 has its own readers).
#pragma once

#include <string>
#include <string_view>

namespace scalebench {

std::string read_text_file(const std::string& path, std::string_view what);

}  // namespace scalebench
