// slurm/safe.h — the gate every value passes before it reaches a generated Slurm script. #SBATCH
// lines cannot be quoted (sbatch reads them itself) and a value with a newline, quote or shell
// metacharacter could add #SBATCH lines or commands, so values are checked against a whitelist
// instead of being escaped: letters, digits and  _ . , : + = @ % / - ^  (no spaces). Each check
// throws one line naming the field, the value and the first bad character.
// Not here: what the values mean (slurm/profile.h), writing scripts (slurm/script.h).
#pragma once

#include <string>
#include <string_view>

namespace scalebench::study::slurm {

// A name, path or option value: non-empty, whitelisted characters only, not starting with '-'
// (so it cannot be read as an option). `field` names the value in the error ("profile.partition").
const std::string& require_word(const std::string& value, const std::string& field);
// A word of a command line shown in a script (options included): whitelisted characters only;
// a leading '-' and the empty word are allowed.
const std::string& require_arg(const std::string& value, const std::string& field);
// An environment variable name: [A-Za-z_][A-Za-z0-9_]*.
const std::string& require_env_name(const std::string& value, const std::string& field);
// A Slurm time limit: M, M:S, H:M:S, D-H, D-H:M or D-H:M:S (digits only).
const std::string& require_time(const std::string& value, const std::string& field);
// An extra sbatch/srun option: --name or --name=<word>, name of [a-z0-9-].
const std::string& require_option(const std::string& value, const std::string& field);

// The value in single quotes, for command lines in the script. Only for values that passed a
// require_* check (it refuses a quote itself as a last line of defence).
std::string quote(std::string_view value);

}  // namespace scalebench::study::slurm
