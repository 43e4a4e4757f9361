/* Runs the bundled mlp model (input x[8,256]) from C with libaoe, on a device
   with the configs its bank holds: run_model MLP.onnx [DEVICE].
   Build: cc -std=c99 run_model.c -I<prefix>/include -L<prefix>/lib -laoe */
#include <aoe.h>
#include <stdio.h>

static float x[8 * 256];

int main(int argc, char** argv) {
  const char* model = argc > 1 ? argv[1] : "mlp.onnx";
  uint32_t major = 0, minor = 0;
  size_t i, d;
  aoe_api_version(&major, &minor);
  if (major != AOE_API_VERSION_MAJOR || minor < AOE_API_VERSION_MINOR) {
    fprintf(stderr, "libaoe %u.%u cannot run a program built for API %d.%d\n", (unsigned)major, (unsigned)minor,
            AOE_API_VERSION_MAJOR, AOE_API_VERSION_MINOR);
    return 1;
  }
  for (i = 0; i < sizeof x / sizeof x[0]; ++i) x[i] = (float)(i % 7) / 7.0f;

  aoe_option options[] = {{"device", argc > 2 ? argv[2] : "cpu"}, {"iterations", "5"}};
  aoe_session* session = NULL;
  if (aoe_session_create(options, 2, &session) != AOE_STATUS_OK) {
    fprintf(stderr, "aoe: %s\n", aoe_last_error());
    return 1;
  }
  const int64_t dims[] = {8, 256};
  aoe_input inputs[] = {{"x", dims, 2, x}}; /* inputs left out are drawn from the "seed" option */
  aoe_run_result* result = NULL;
  int32_t status = aoe_session_run_file(session, model, inputs, 1, &result);
  if (status == AOE_STATUS_OK) {
    for (i = 0; i < aoe_run_result_output_count(result); ++i) {
      size_t rank = 0, count = 0;
      const int64_t* shape = aoe_run_result_output_dims(result, i, &rank);
      const float* data = aoe_run_result_output_data(result, i, &count);
      printf("%s [", aoe_run_result_output_name(result, i));
      for (d = 0; d < rank; ++d) printf(d ? ", %lld" : "%lld", (long long)shape[d]);
      printf("]: %zu values, first %g\n", count, count ? data[0] : 0.0);
    }
    printf("%s\n", aoe_run_result_report(result)); /* latency, which kernels ran tuned */
  } else {
    fprintf(stderr, "aoe: %s\n", aoe_last_error());
  }
  aoe_run_result_destroy(result);
  aoe_session_destroy(session);
  return status == AOE_STATUS_OK ? 0 : 1;
}
