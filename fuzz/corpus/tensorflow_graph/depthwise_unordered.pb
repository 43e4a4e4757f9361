

addAddV2actx

actRelu6avg
M
avgAvgPooldw*
ksize
*
strides
*
paddingSAME
`
dwDepthwiseConv2dNativexf*
strides
*
paddingSAME*
	dilations

+
fConst*
valueB
:
xPlaceholder*
dtype0*
shape:

sConst*
value
B

mulMuladds