// The report as one self-contained HTML page: the data embedded as JSON, and
// the inline script that draws its charts as SVG. It fetches nothing.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace aoe::host {

// data: what gather_report_data returns.
std::string report_html(const nlohmann::json& data);

// JSON text safe inside a <script> element: '<', '>' and '&' as \u escapes,
// so no string in the data can close the element ("</script>") or open a comment.
std::string script_safe_json(const nlohmann::json& data);

}  // namespace aoe::host
