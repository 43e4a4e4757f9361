// `aoe-host report`: the page of real runs of each mode, its embedded data
// read back, and (when Debian's chromium is installed) drawn in a headless browser.
#include <csignal>
#include <thread>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

// The one workspace of the scratch dir's runs.
std::filesystem::path only_workspace(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> found;
  for (const auto& e : std::filesystem::directory_iterator(dir / "aoe_workspace")) found.push_back(e.path());
  EXPECT_EQ(found.size(), 1u);
  return found.empty() ? std::filesystem::path() : found.front();
}

// The data the page embeds, parsed back as the page's script does.
json embedded_data(const std::string& page) {
  const std::string open = R"(<script type="application/json" id="aoe-data">)";
  const auto begin = page.find(open);
  if (begin == std::string::npos) return nullptr;
  const auto end = page.find("</script>", begin);
  return json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class ReportTest : public AoeHostTest {
 protected:
  // aoe-host report on the run's workspace; the page's text.
  std::string report(const std::filesystem::path& page) {
    const auto r = aoe_host({"report", only_workspace(dir_).string(), "-o", page.string()});
    EXPECT_EQ(r.exit_code, 0) << failure_text(r);
    return read_text(page);
  }

  ProcessResult chromium(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {AOE_CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                                     "--user-data-dir=" + (dir_ / "chromium-profile").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, dir_);
  }
};

TEST_F(ReportTest, OpatReportDrawsItsChartsInChromium) {
  if (!std::filesystem::exists(AOE_CHROMIUM)) GTEST_SKIP() << "chromium is not installed (apt-get install chromium)";
  ASSERT_EQ(tune("conv_block.onnx", {"--budget", "16"}).exit_code, 0);
  const auto page = dir_ / "report.html";
  const std::string html = report(page);
  const json data = embedded_data(html);
  ASSERT_EQ(data["mode"], "OPAT");
  const size_t tasks = data["tasks"].size();
  ASSERT_EQ(tasks, only_result()["OPAT"]["opat_tuned_operators"].size());
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // no fetch: the SVG namespace only
  EXPECT_EQ(html.find("https://"), std::string::npos);

  const auto dom = chromium({"--dump-dom", "file://" + page.string()});
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  // The script ran to its end, and no error reached window.onerror.
  EXPECT_NE(dom.out.find(R"(data-rendered="yes")"), std::string::npos) << dom.out.substr(0, 2000);
  const auto error = dom.out.find(R"(id="report-error")");
  EXPECT_EQ(error, std::string::npos) << dom.out.substr(error == std::string::npos ? 0 : error, 300);
  EXPECT_EQ(count(dom.out, R"(class="chart convergence-evals")"), tasks);
  EXPECT_EQ(count(dom.out, R"(class="chart convergence-time")"), tasks);
  EXPECT_EQ(count(dom.out, R"(class="chart distribution")"), tasks);
  EXPECT_EQ(count(dom.out, R"(class="chart ops-chart")"), 1u);
  // A point per measured config in both convergence charts, and the default marked in each chart.
  size_t measured = 0;
  for (const auto& [name, task] : data["tasks"].items())
    for (const auto& point : task["points"]) measured += point["status"] == "ok";
  ASSERT_GT(measured, 0u);
  EXPECT_EQ(count(dom.out, "<circle class=\"pt"), 2 * measured);
  EXPECT_EQ(count(dom.out, R"(class="default-mark")"), 3 * tasks);
  EXPECT_EQ(count(dom.out, R"(<rect class="after")"), tasks);
  // The best-so-far line has points: "x,y x,y ...".
  const std::string polyline = R"(<polyline class="best" points=")";
  const auto line = dom.out.find(polyline);
  ASSERT_NE(line, std::string::npos);
  const std::string points = dom.out.substr(line + polyline.size(), dom.out.find('"', line + polyline.size()) - line - polyline.size());
  EXPECT_EQ(count(points, ","), count(points, " ") + 1) << points;
  EXPECT_GT(count(points, ","), 1u) << points;

  const std::filesystem::path shot = AOE_BUILD_DIR "/report.png";
  std::filesystem::remove(shot);
  const auto s = chromium({"--hide-scrollbars", "--window-size=1000,1400", "--screenshot=" + shot.string(),
                           "file://" + page.string()});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(read_text(shot).substr(1, 3), "PNG");
}

TEST_F(ReportTest, SgatReportHoldsEachSubgraphsMeasurements) {
  const auto r = aoe_host({"--plugin", "sgat", "--device", "ascend910", "--model", model("conv_block.onnx").string(),
                           "--budget", "8"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json data = embedded_data(report(dir_ / "report.html"));
  ASSERT_EQ(data["mode"], "SGAT");
  const json result = only_result()["SGAT"];
  EXPECT_EQ(data["section"], result);
  for (const auto& sg : result["sgat_tuned_subgraphs"])
    EXPECT_EQ(data["tasks"][sg["subgraph_name"].get<std::string>()]["points"].size(), sg["evaluations"]);
}

TEST_F(ReportTest, GdatReportHoldsTheScheduleTrace) {
  const auto r = aoe_host({"--plugin", "gdat", "--model", model("resnet50.onnx").string(), "--cluster",
                           std::string(AOE_GDAT_CLUSTERS_DIR) + "/ascend910_8p_hccs.yaml"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json data = embedded_data(report(dir_ / "report.html"));
  ASSERT_EQ(data["mode"], "GDAT");
  EXPECT_EQ(data["section"]["baselines"].size(), only_result()["GDAT"]["baselines"].size());
  size_t spans = 0;
  for (const auto& e : data["gdat_trace"]["traceEvents"]) spans += e["ph"] == "X";
  EXPECT_GT(spans, 4u);  // forward, backward and the buckets of two splits
}

TEST_F(ReportTest, InterruptedRunGivesAReportOfWhatItMeasured) {
  const std::string forever = std::string(AOE_TEST_PLUGINS_DIR) + "/forever";
  auto child = start_aoe_host(tune_args("mlp.onnx", {"--searcher", "forever", "--plugin-dir", forever, "--budget",
                                                     "100000000", "--time_limit", "60"}));
  // Interrupted once the first task has logged a measurement.
  const auto logged = [&] {
    std::error_code ec;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_ / "aoe_workspace", ec))
      if (e.path().filename() == "measurements.jsonl" && e.file_size(ec) > 0) return true;
    return false;
  };
  for (int i = 0; i < 6000 && !logged(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  child->signal(SIGINT);
  ASSERT_EQ(child->wait(60).exit_code, 130);
  const std::string html = report(dir_ / "report.html");
  const json data = embedded_data(html);
  EXPECT_EQ(data["section"]["opat_tuning_result"], "tuning incomplete");
  ASSERT_EQ(data["tasks"].size(), 1u) << data.dump(2).substr(0, 2000);
  EXPECT_FALSE(data["tasks"].begin().value()["points"].empty());
}

TEST_F(ReportTest, NamesThatCloseTheScriptStayData) {
  // A task name from a crafted log, and a last line cut short by a crash.
  const auto ws = dir_ / "aoe_workspace" / "m_1";
  std::filesystem::create_directories(ws);
  const std::string name = "</script><script>document.title='x'</script><!--";
  std::ofstream(ws / "measurements.jsonl")
      << json({{"task", name}, {"evaluation", 1}, {"status", "ok"}, {"time_us", 2.5}, {"wall_time_s", 1.0}}).dump()
      << "\n{\"task\": \"cut";
  const std::string html = report(dir_ / "report.html");
  EXPECT_EQ(html.find(name), std::string::npos);
  EXPECT_EQ(count(html, "</script>"), 3u);  // the page's own three script elements
  const json data = embedded_data(html);
  EXPECT_TRUE(data["tasks"].contains(name));
  EXPECT_EQ(data["skipped_lines"], 1);
}

TEST_F(ReportTest, RefusesWhatIsNoWorkspace) {
  const auto missing = aoe_host({"report", (dir_ / "nowhere").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nowhere is not a directory"), std::string::npos) << missing.err;
  const auto empty = aoe_host({"report", dir_.string()});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("neither aoe_result.json nor measurements.jsonl"), std::string::npos) << empty.err;
  const auto two = aoe_host({"report", "a", "b"});
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("report takes one workspace"), std::string::npos) << two.err;
}

}  // namespace
}  // namespace aoe::test
