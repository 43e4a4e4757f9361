/* The C API from plain C99: the header compiles as C and libaoe links; a
   session's life cycle, tuning by path and by bytes, a cancel from another
   thread mid-run, options refused by name, and running the model with given
   or drawn inputs, inputs refused by name. */
#define _POSIX_C_SOURCE 200809L
#include <aoe.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

static const char* model_path;
static const char* work_dir;

/* A session on the simulator with a small budget, its files under work_dir/<name>. */
static aoe_session* open_session(const char* name) {
  static char work[1024], bank[1024];
  aoe_session* session = NULL;
  snprintf(work, sizeof work, "%s/%s", work_dir, name);
  snprintf(bank, sizeof bank, "%s/%s/bank", work_dir, name);
  aoe_option options[] = {{"device", "ascend910"}, {"budget", "16"},
                          {"work_path", work},      {"bank_path", bank}, {"log_level", "warn"}};
  int32_t status = aoe_session_create(options, sizeof options / sizeof options[0], &session);
  if (status != AOE_STATUS_OK) fprintf(stderr, "aoe_session_create: %s\n", aoe_last_error());
  return session;
}

/* A session on `device` that runs the model quickly, its files under work_dir/<name>. */
static aoe_session* open_run_session(const char* name, const char* device) {
  static char work[1024], bank[1024];
  aoe_session* session = NULL;
  snprintf(work, sizeof work, "%s/%s", work_dir, name);
  snprintf(bank, sizeof bank, "%s/%s/bank", work_dir, name);
  aoe_option options[] = {{"device", device},     {"iterations", "2"}, {"threads", "1"},
                          {"work_path", work},    {"bank_path", bank}, {"log_level", "warn"}};
  int32_t status = aoe_session_create(options, sizeof options / sizeof options[0], &session);
  if (status != AOE_STATUS_OK) fprintf(stderr, "aoe_session_create: %s\n", aoe_last_error());
  return session;
}

/* A function, so that comparing with a minor of 0 is no constant comparison. */
static int at_least(uint32_t have, uint32_t want) { return have >= want; }

static void test_version(void) {
  uint32_t major = 0, minor = 0;
  aoe_api_version(&major, &minor);
  CHECK(major == AOE_API_VERSION_MAJOR);
  CHECK(at_least(minor, AOE_API_VERSION_MINOR));
}

static void test_bad_options(void) {
  aoe_session* session = NULL;
  aoe_option unknown[] = {{"budgett", "8"}};
  CHECK(aoe_session_create(unknown, 1, &session) == AOE_STATUS_INVALID_ARGUMENT);
  CHECK(session == NULL);
  CHECK(strstr(aoe_last_error(), "budgett") != NULL);

  aoe_option not_a_number[] = {{"budget", "many"}};
  CHECK(aoe_session_create(not_a_number, 1, &session) == AOE_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(aoe_last_error(), "budget") != NULL);

  aoe_option no_device[] = {{"device", "ascend9999"}};
  CHECK(aoe_session_create(no_device, 1, &session) == AOE_STATUS_NOT_FOUND);
  CHECK(strstr(aoe_last_error(), "ascend9999") != NULL);
}

static void test_life_cycle(void) {
  aoe_session* session = open_session("life");
  const char* plugins = NULL;
  CHECK(session != NULL);
  if (!session) return;
  CHECK(aoe_session_plugins(session, &plugins) == AOE_STATUS_OK);
  CHECK(plugins && strstr(plugins, "\"opat\"") && strstr(plugins, "\"ascend910\""));
  CHECK(strcmp(aoe_session_result(session), "") == 0);
  /* A mode no plugin provides: no tuning, a message naming it. */
  CHECK(aoe_session_tune_file(session, "nosuchmode", model_path) == AOE_STATUS_NOT_FOUND);
  CHECK(strstr(aoe_last_error(), "nosuchmode") != NULL);
  aoe_session_destroy(session);
  aoe_session_destroy(NULL);
}

static void test_tune_by_path_and_bytes(void) {
  aoe_session* session = open_session("tune");
  FILE* file;
  long size;
  char* bytes;
  if (!session) return;
  CHECK(aoe_session_tune_file(session, "opat", model_path) == AOE_STATUS_OK);
  CHECK(strstr(aoe_session_result(session), "\"opat_tuning_result\": \"tuning successful\"") != NULL);
  CHECK(strstr(aoe_session_result(session), "\"tuning_name\": \"mlp\"") != NULL);

  file = fopen(model_path, "rb");
  CHECK(file != NULL);
  if (!file) return;
  fseek(file, 0, SEEK_END);
  size = ftell(file);
  fseek(file, 0, SEEK_SET);
  bytes = malloc((size_t)size);
  CHECK(bytes && fread(bytes, 1, (size_t)size, file) == (size_t)size);
  fclose(file);
  CHECK(aoe_session_tune_bytes(session, "opat", "mlp_in_memory", bytes, (size_t)size) == AOE_STATUS_OK);
  CHECK(strstr(aoe_session_result(session), "\"tuning_name\": \"mlp_in_memory\"") != NULL);
  CHECK(strstr(aoe_session_result(session), "\"opat_tuning_result\": \"tuning successful\"") != NULL);
  /* Bytes that are no model: refused with the name in the message. */
  CHECK(aoe_session_tune_bytes(session, "opat", "garbage", bytes, 7) == AOE_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(aoe_last_error(), "garbage") != NULL);
  CHECK(aoe_session_tune_bytes(session, "opat", "../escape", bytes, (size_t)size) == AOE_STATUS_INVALID_ARGUMENT);
  free(bytes);
  aoe_session_destroy(session);
}

/* The first progress report hands over to a canceller thread and waits for
   its cancel, so the cancel lands while the tuning runs. */
struct cancel_race {
  aoe_session* session;
  pthread_mutex_t mutex;
  pthread_cond_t changed;
  int reported, cancelled, reports;
};

static void on_progress(void* user, const aoe_progress* progress) {
  struct cancel_race* race = user;
  CHECK(progress->struct_size >= sizeof(aoe_progress));
  CHECK(progress->total >= 1 && progress->done >= 1 && progress->done <= progress->total);
  CHECK(progress->note && progress->note[0]);
  pthread_mutex_lock(&race->mutex);
  ++race->reports;
  race->reported = 1;
  pthread_cond_broadcast(&race->changed);
  while (!race->cancelled) pthread_cond_wait(&race->changed, &race->mutex);
  pthread_mutex_unlock(&race->mutex);
}

static void* canceller(void* user) {
  struct cancel_race* race = user;
  pthread_mutex_lock(&race->mutex);
  while (!race->reported) pthread_cond_wait(&race->changed, &race->mutex);
  aoe_session_cancel(race->session);
  race->cancelled = 1;
  pthread_cond_broadcast(&race->changed);
  pthread_mutex_unlock(&race->mutex);
  return NULL;
}

static void test_cancel_from_another_thread(void) {
  struct cancel_race race;
  pthread_t thread;
  memset(&race, 0, sizeof race);
  race.session = open_session("cancel");
  if (!race.session) return;
  pthread_mutex_init(&race.mutex, NULL);
  pthread_cond_init(&race.changed, NULL);
  CHECK(aoe_session_set_progress(race.session, on_progress, &race) == AOE_STATUS_OK);
  pthread_create(&thread, NULL, canceller, &race);
  CHECK(aoe_session_tune_file(race.session, "opat", model_path) == AOE_STATUS_CANCELLED);
  pthread_join(thread, NULL);
  CHECK(race.reports >= 1);
  CHECK(strstr(aoe_last_error(), "tuning incomplete") != NULL);
  CHECK(strstr(aoe_session_result(race.session), "\"opat_tuning_result\": \"tuning incomplete\"") != NULL);
  /* The flag cleared as the tuning returned: the next one runs to the end. */
  CHECK(aoe_session_set_progress(race.session, NULL, NULL) == AOE_STATUS_OK);
  CHECK(aoe_session_tune_file(race.session, "opat", model_path) == AOE_STATUS_OK);
  CHECK(strstr(aoe_session_result(race.session), "\"opat_tuning_result\": \"tuning successful\"") != NULL);
  pthread_cond_destroy(&race.changed);
  pthread_mutex_destroy(&race.mutex);
  aoe_session_destroy(race.session);
}

/* mlp's y[8,64] for x (NULL: x drawn from the seed) into out; 1 when the run succeeded. */
static int run_mlp(aoe_session* session, const float* x, float* out) {
  static const int64_t dims[] = {8, 256};
  aoe_input inputs[1];
  aoe_run_result* result = NULL;
  size_t rank = 0, count = 0;
  const int64_t* shape;
  const float* data;
  inputs[0].name = "x";
  inputs[0].dims = dims;
  inputs[0].rank = 2;
  inputs[0].data = x;
  if (aoe_session_run_file(session, model_path, inputs, x ? 1 : 0, &result) != AOE_STATUS_OK) {
    fprintf(stderr, "aoe_session_run_file: %s\n", aoe_last_error());
    ++failures;
    return 0;
  }
  CHECK(aoe_run_result_output_count(result) == 1);
  CHECK(strcmp(aoe_run_result_output_name(result, 0), "y") == 0);
  shape = aoe_run_result_output_dims(result, 0, &rank);
  CHECK(rank == 2 && shape[0] == 8 && shape[1] == 64);
  data = aoe_run_result_output_data(result, 0, &count);
  CHECK(count == 8 * 64 && data != NULL);
  if (data && count == 8 * 64) memcpy(out, data, sizeof(float) * count);
  CHECK(strstr(aoe_run_result_report(result), "\"latency_ms\"") != NULL);
  CHECK(strstr(aoe_run_result_report(result), "\"model\": \"mlp\"") != NULL);
  /* Past the outputs: nothing. */
  CHECK(aoe_run_result_output_name(result, 1) == NULL);
  CHECK(aoe_run_result_output_data(result, 1, &count) == NULL && count == 0);
  aoe_run_result_destroy(result);
  return 1;
}

static void test_run_on_cpu(void) {
  static float x[8 * 256], first[8 * 64], again[8 * 64], drawn[8 * 64];
  static const int64_t wrong_dims[] = {8, 255};
  static const int64_t negative_dims[] = {8, -256};
  aoe_session* session = open_run_session("run", "cpu");
  aoe_run_result* result = NULL;
  aoe_input bad;
  size_t i;
  int same = 1;
  if (!session) return;
  for (i = 0; i < 8 * 256; ++i) x[i] = (float)((int)(i % 11) - 5) / 5.0f;
  /* The same input gives the same outputs; an input drawn from the seed others. */
  if (run_mlp(session, x, first) && run_mlp(session, x, again) && run_mlp(session, NULL, drawn)) {
    CHECK(memcmp(first, again, sizeof first) == 0);
    for (i = 0; i < 8 * 64; ++i) same = same && first[i] == drawn[i];
    CHECK(!same);
  }

  bad.name = "nosuchinput";
  bad.dims = wrong_dims;
  bad.rank = 2;
  bad.data = x;
  CHECK(aoe_session_run_file(session, model_path, &bad, 1, &result) == AOE_STATUS_INVALID_ARGUMENT);
  CHECK(result == NULL);
  CHECK(strstr(aoe_last_error(), "nosuchinput") != NULL);
  bad.name = "x"; /* x with 255 columns: the model takes 256 */
  CHECK(aoe_session_run_file(session, model_path, &bad, 1, &result) == AOE_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(aoe_last_error(), "input 'x'") != NULL && strstr(aoe_last_error(), "[8,255]") != NULL);
  bad.dims = negative_dims;
  CHECK(aoe_session_run_file(session, model_path, &bad, 1, &result) == AOE_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(aoe_last_error(), "input 'x'") != NULL);
  CHECK(aoe_session_run_file(session, model_path, NULL, 0, NULL) == AOE_STATUS_INVALID_ARGUMENT);
  CHECK(aoe_session_run_file(session, "no_such_model.onnx", NULL, 0, &result) == AOE_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(aoe_last_error(), "no_such_model.onnx") != NULL);
  aoe_run_result_destroy(NULL);
  aoe_session_destroy(session);
}

/* A device that models time computes no outputs: the run reports its time alone. */
static void test_run_on_simulator(void) {
  aoe_session* session = open_run_session("run_sim", "ascend910");
  aoe_run_result* result = NULL;
  if (!session) return;
  CHECK(aoe_session_run_file(session, model_path, NULL, 0, &result) == AOE_STATUS_OK);
  CHECK(aoe_run_result_output_count(result) == 0);
  CHECK(strstr(aoe_run_result_report(result), "\"outputs_computed\": false") != NULL);
  aoe_run_result_destroy(result);
  aoe_session_destroy(session);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODEL.onnx WORK_DIR\n", argv[0]);
    return 2;
  }
  model_path = argv[1];
  work_dir = argv[2];
  test_version();
  test_bad_options();
  test_life_cycle();
  test_tune_by_path_and_bytes();
  test_cancel_from_another_thread();
  test_run_on_cpu();
  test_run_on_simulator();
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
