#include "apps/cli_app.h"

#include "apps/commands.h"

namespace rlzoo::cli {

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
}

}  // namespace rlzoo::cli
