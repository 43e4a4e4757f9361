#include "report_command.h"

#include "aoe/sdk/atomic_file.h"
#include "command_line.h"
#include "exit_error.h"
#include "report_data.h"
#include "report_page.h"

namespace aoe::host {

int run_report_command(const std::vector<std::string>& arguments, const Settings& settings, std::ostream& out) {
  if (arguments.size() != 1)
    throw ExitError(exit_usage, "report takes one workspace, aoe_workspace/<model>_<timestamp>: aoe-host report "
                                "WORKSPACE [-o report.html]");
  const std::filesystem::path workspace = arguments.front();
  const auto data = gather_report_data(workspace);
  const std::filesystem::path page =
      settings.has("output") ? std::filesystem::path(settings.text("output")) : workspace / "report.html";
  if (std::filesystem::is_directory(page))
    throw ExitError(exit_usage, "report: -o " + page.string() + " is a directory; give the HTML file to write");
  try {
    aoe::sdk::write_atomically(page, report_html(data));
  } catch (const std::exception& e) {
    throw ExitError(exit_usage, "report: cannot write " + page.string() + ": " + e.what());
  }
  out << "report: " << page.string() << " (" << data["tasks"].size() << " tasks measured)\n";
  return exit_ok;
}

}  // namespace aoe::host
