#include "apps/cli_app.h"

#include "apps/commands.h"

namespace rlzoo::cli {

namespace {

// --help prints each option's default beside it, as docs/cli.md does: the default captured
// from the bound variable where the option did not set one (flags have none).
void show_defaults(CLI::App& app) {
  for (CLI::Option* o : app.get_options([](CLI::Option*) { return true; }))
    if (o->get_items_expected_max() > 0 && o->get_default_str().empty()) o->capture_default_str();
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) show_defaults(*sub);
}

}  // namespace

void add_all_commands(CLI::App& app, const std::string& command_line) {
  app.set_version_flag("--version", std::string("rlzoo ") + RLZOO_VERSION);
  app.require_subcommand(1);
  add_list_command(app);
  add_info_command(app);
  add_env_commands(app);
  add_bench_commands(app);
  add_dataset_commands(app, command_line);
#ifdef RLZOO_WITH_TORCH
  auto train_options = add_train_commands(app, command_line);
#ifdef RLZOO_WITH_GRPC
  add_distributed_commands(app, command_line, train_options);
#else
  (void)train_options;
#endif
  add_doudizhu_commands(app);
  add_export_command(app);
#endif
  add_docs_command(app);
  show_defaults(app);
}

}  // namespace rlzoo::cli
