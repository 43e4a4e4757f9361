// Ctrl-C and SIGTERM ask the run to stop; a second one ends the process at once.
#pragma once

namespace aoe::host {

void install_interrupt_handlers();
bool interrupted();

}  // namespace aoe::host
