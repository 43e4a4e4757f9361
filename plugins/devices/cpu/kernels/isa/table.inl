// The table of one ISA. Included last, inside the ISA's namespace, by that
// ISA's file alone: isa_kernels() (isa.cpp) reaches it by the namespace.

const IsaKernels& table() {
  static const IsaKernels t = [] {
    IsaKernels k{};
    k.lanes = kLanes;
#if AOE_CPU_LANES == 16
    k.isa = Isa::avx512;
    const UKernel uks[] = {make_ukernel<14, 2>(), make_ukernel<8, 2>(), make_ukernel<6, 4>(), make_ukernel<28, 1>(),
                           make_ukernel<6, 3>(), make_ukernel<2, 4>()};
    const ConvTile tiles[] = {make_conv_tile<1, 1>(),  make_conv_tile<1, 2>(),  make_conv_tile<4, 1>(),
                              make_conv_tile<4, 2>(),  make_conv_tile<8, 1>(),  make_conv_tile<8, 2>(),
                              make_conv_tile<14, 1>(), make_conv_tile<14, 2>(), make_conv_tile<28, 1>()};
    const ConvTile dw[] = {make_depthwise_tile<1>(), make_depthwise_tile<4>(), make_depthwise_tile<8>(),
                           make_depthwise_tile<14>()};
#elif AOE_CPU_LANES == 8
    k.isa = Isa::avx2;
    const UKernel uks[] = {make_ukernel<6, 2>(), make_ukernel<4, 3>(), make_ukernel<8, 1>(), make_ukernel<12, 1>(),
                           make_ukernel<3, 4>(), make_ukernel<2, 4>()};
    const ConvTile tiles[] = {make_conv_tile<1, 1>(), make_conv_tile<1, 2>(), make_conv_tile<4, 1>(),
                              make_conv_tile<4, 2>(), make_conv_tile<6, 1>(), make_conv_tile<6, 2>(),
                              make_conv_tile<8, 1>(), make_conv_tile<12, 1>()};
    const ConvTile dw[] = {make_depthwise_tile<1>(), make_depthwise_tile<4>(), make_depthwise_tile<8>(),
                           make_depthwise_tile<12>()};
#else
    k.isa = Isa::generic;
    const UKernel uks[] = {make_ukernel<4, 2>(), make_ukernel<6, 2>(), make_ukernel<4, 1>(), make_ukernel<8, 1>()};
    const ConvTile tiles[] = {make_conv_tile<1, 1>(), make_conv_tile<1, 2>(), make_conv_tile<4, 1>(),
                              make_conv_tile<4, 2>(), make_conv_tile<8, 1>()};
    const ConvTile dw[] = {make_depthwise_tile<1>(), make_depthwise_tile<4>(), make_depthwise_tile<8>()};
#endif
    for (const auto& u : uks) k.ukernels[k.ukernel_count++] = u;
    for (const auto& c : tiles) k.conv_tiles[k.conv_tile_count++] = c;
    for (const auto& c : dw) k.depthwise_tiles[k.depthwise_tile_count++] = c;
    k.unary = &unary;
    k.binary = &binary;
    k.row_sum = &row_sum;
    k.row_max = &row_max;
    k.accumulate = &accumulate;
    k.softmax_row = &softmax_row;
    k.moments = &moments;
    k.normalize = &normalize;
    k.pool_plane = &pool_plane;
    k.pool_blocked = &pool_blocked;
    k.depthwise_plane = &depthwise_plane;
    k.group_planes = &group_planes;
    return k;
  }();
  return t;
}
