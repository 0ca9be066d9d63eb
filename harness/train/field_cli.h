// field_cli.h — a Field row (field.h) as a CLI11 option: the row's flag, help and default, its text
// parsed and checked as it is read, so a bad value is one line naming the flag. The one place the
// option tables meet CLI11: `train` adds every row (harness/main.cpp), `project` adds the rows of
// the train options it predicts with (--bucket-mb, --compression), so each is described once.
// Header-only so that only the command-line code includes CLI11.
// What it deliberately does not do: rules between fields, `--config` files, or which rows a
// subcommand takes.
#pragma once

#include <CLI/CLI.hpp>

#include <span>
#include <string>

#include "harness/train/field.h"

namespace scalebench {

template <class C>
CLI::Option* add_field_option(CLI::App* cmd, C& target, const Field<C>& f) {
  const Field<C>* fp = &f;  // rows live in static tables: they outlive the parse
  if (f.kind == ValueKind::boolean)
    return cmd->add_flag_callback(f.flag, [fp, &target] { (void)fp->parse(target, "true"); }, f.help);
  auto* o = cmd->add_option_function<std::string>(
      f.flag,
      [fp, &target](const std::string& v) {
        if (auto p = fp->parse(target, v)) throw CLI::ValidationError(fp->flag, *p);
      },
      f.help);
  o->default_str(f.default_text());
  o->type_name(f.kind == ValueKind::integer ? "INT" : f.kind == ValueKind::number ? "NUM" : "TEXT");
  return o;
}

// Every row that has a flag.
template <class C>
void add_field_options(CLI::App* cmd, C& target, std::span<const Field<C>> fields) {
  for (const auto& f : fields)
    if (!f.flag.empty()) add_field_option(cmd, target, f);
}

}  // namespace scalebench
