"""The policy's reference model (policy/model), for guest tests.

load() returns the generator module (for probe_cdbs, ...) and the Policy
read from policy/default.policy and policy/linux-6.1.list under $SGF_TOP.
"""
import importlib.machinery
import importlib.util
import os
import sys

sys.dont_write_bytecode = True  # the guest's root is read-only


def load():
    top = os.environ["SGF_TOP"]
    path = os.path.join(top, "policy/model")
    loader = importlib.machinery.SourceFileLoader("policy_model", path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module, module.Policy(os.path.join(top, "policy/default.policy"),
                                 os.path.join(top, "policy/linux-6.1.list"))
