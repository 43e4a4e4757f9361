/* Tunes a model's operators from C with libaoe: tune_model MODEL.onnx [DEVICE].
   Build: cc -std=c99 tune_model.c -I<prefix>/include -L<prefix>/lib -laoe */
#include <aoe.h>
#include <stdio.h>

int main(int argc, char** argv) {
  const char* model = argc > 1 ? argv[1] : "mlp.onnx";
  aoe_option options[] = {{"device", argc > 2 ? argv[2] : "ascend910"}, {"budget", "16"}};
  aoe_session* session = NULL;
  if (aoe_session_create(options, 2, &session) != AOE_STATUS_OK) {
    fprintf(stderr, "aoe: %s\n", aoe_last_error());
    return 1;
  }
  int32_t status = aoe_session_tune_file(session, "opat", model);
  if (status == AOE_STATUS_OK)
    printf("%s\n", aoe_session_result(session)); /* the result file's JSON */
  else
    fprintf(stderr, "aoe: %s\n", aoe_last_error());
  aoe_session_destroy(session);
  return status == AOE_STATUS_OK ? 0 : 1;
}
