// A 2-D convolution of a 256x256 image with a 5x5 filter held in constant
// memory: each thread computes tile_size_x x tile_size_y outputs, reading the
// input from global memory (through the read-only cache when read_only is 1)
// or from a tile of it staged in shared memory (use_shmem), whose rows are
// padded against bank conflicts when use_padding is 1.
#define image_width 256
#define image_height 256

#ifndef filter_width
#define filter_width 5
#endif
#ifndef filter_height
#define filter_height 5
#endif
#ifndef block_size_x
#define block_size_x 16
#endif
#ifndef block_size_y
#define block_size_y 16
#endif
#ifndef tile_size_x
#define tile_size_x 1
#endif
#ifndef tile_size_y
#define tile_size_y 1
#endif
#ifndef read_only
#define read_only 0
#endif
#ifndef use_shmem
#define use_shmem 1
#endif
#ifndef use_padding
#define use_padding 0
#endif

#define input_width (image_width + filter_width - 1)
#define input_height (image_height + filter_height - 1)

#if read_only == 1
#define LOAD(index) __ldg(input + (index))
#else
#define LOAD(index) input[index]
#endif

__constant__ float d_filter[filter_height * filter_width];

#define tile_width (block_size_x * tile_size_x + filter_width - 1)
#define tile_height (block_size_y * tile_size_y + filter_height - 1)
#define shared_width (tile_width + use_padding)

extern "C" __global__ void convolution_kernel(float *output, const float *input, const float *filter) {
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int bx = blockIdx.x * block_size_x * tile_size_x;
    const int by = blockIdx.y * block_size_y * tile_size_y;

#if use_shmem == 1
    __shared__ float tile[tile_height][shared_width];
    for (int i = ty; i < tile_height; i += block_size_y) {
        for (int j = tx; j < tile_width; j += block_size_x) {
            const int y = by + i;
            const int x = bx + j;
            tile[i][j] = (y < input_height && x < input_width) ? LOAD(y * input_width + x) : 0.0f;
        }
    }
    __syncthreads();
#define INPUT(i, j) tile[i][j]
#else
#define INPUT(i, j) LOAD((by + (i)) * input_width + bx + (j))
#endif

    for (int yi = 0; yi < tile_size_y; yi++) {
        for (int xi = 0; xi < tile_size_x; xi++) {
            const int i = ty + yi * block_size_y;
            const int j = tx + xi * block_size_x;
            if (by + i >= image_height || bx + j >= image_width) {
                continue;
            }
            float sum = 0.0f;
            for (int fi = 0; fi < filter_height; fi++) {
                for (int fj = 0; fj < filter_width; fj++) {
                    sum += INPUT(i + fi, j + fj) * d_filter[fi * filter_width + fj];
                }
            }
            output[(by + i) * image_width + bx + j] = sum;
        }
    }
}
