"""Tunes a model's operators from Python: python3 tune_model.py MODEL.onnx [DEVICE]."""
import sys

import aoe

model = sys.argv[1] if len(sys.argv) > 1 else "mlp.onnx"
device = sys.argv[2] if len(sys.argv) > 2 else "ascend910"
session = aoe.Session(device=device, budget=16)
result = session.tune(model, mode="opat")
print(result["basic"]["tuning_name"], result["OPAT"]["opat_tuning_result"],
      result["OPAT"].get("model_performance_improvement", "n/a"))
