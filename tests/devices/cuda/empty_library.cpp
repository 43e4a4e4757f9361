// A shared library that is not the CUDA driver: it exports none of its entry points.
extern "C" __attribute__((visibility("default"))) int aoe_not_cuda() { return 0; }
