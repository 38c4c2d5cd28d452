"""The benchmark workloads of the team's bench/workloads.md, as data."""

# id, (N, C, H, W) (N None: rank-3), kernel, stride, pad, ceil, dilation, dtype, channels_last
MAXPOOL = [
    ("resnet-stem", (32, 64, 112, 112), 3, 2, 1, False, 1, "float32", False),
    ("resnet-stem-nhwc", (32, 64, 112, 112), 3, 2, 1, False, 1, "float32", True),
    ("resnet-stem-bf16", (32, 64, 112, 112), 3, 2, 1, False, 1, "bfloat16", False),
    ("resnet-stem-fp16", (32, 64, 112, 112), 3, 2, 1, False, 1, "float16", False),
    ("vgg-pool1", (16, 64, 224, 224), 2, 2, 0, False, 1, "float32", False),
    ("inception-ceil", (32, 192, 71, 71), 3, 2, 0, True, 1, "float32", False),
    ("overlap-s1", (8, 256, 28, 28), 3, 1, 1, False, 1, "float32", False),
    ("small-planes", (64, 512, 14, 14), 2, 2, 0, False, 1, "float32", False),
    ("chw-single", (None, 256, 128, 128), 2, 2, 0, False, 1, "float32", False),
    ("dilated", (8, 64, 64, 64), 3, 1, 1, False, 2, "float32", False),
]

# id, (N, C, H, W), R, pooled, scale, dtype
ROI = [
    ("fast-rcnn-vgg16", (2, 512, 38, 50), 256, 7, 1 / 16, "float32"),
    ("fast-rcnn-test", (1, 512, 38, 50), 1024, 7, 1 / 16, "float32"),
    ("fpn-p2", (2, 256, 200, 272), 512, 7, 1 / 4, "float32"),
    ("mask-14", (2, 256, 50, 68), 512, 14, 1 / 16, "float32"),
    ("fp16", (2, 512, 38, 50), 256, 7, 1 / 16, "float16"),
]
