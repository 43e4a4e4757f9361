// c = a + b over n elements: each thread adds tile_size_x elements, one
// block's width apart, so a warp's accesses stay contiguous.
#ifndef block_size_x
#define block_size_x 256
#endif
#ifndef tile_size_x
#define tile_size_x 1
#endif

extern "C" __global__ void vector_add(float *c, const float *a, const float *b, int n) {
    int i = blockIdx.x * block_size_x * tile_size_x + threadIdx.x;
    for (int t = 0; t < tile_size_x; t++, i += block_size_x) {
        if (i < n) {
            c[i] = a[i] + b[i];
        }
    }
}
