"""Shared pieces of the SYNTHETIC kgen-bench results files the tool tests
make up (host "synthetic"; never a GPU's measurements)."""

DEVICE = {"name": "NVIDIA H200", "sm_count": 132, "cc_major": 9, "cc_minor": 0,
          "sm_clock_khz": 0, "mem_clock_khz": 0, "l2_bytes": 0, "memory_bytes": 0,
          "driver_version": "13.0", "runtime_version": "13.0"}


def results_doc(results, created_at):
    """A kgen.results version 1 document holding `results`."""
    return {"schema": "kgen.results", "version": 1, "created_at": created_at,
            "commit": "synthetic", "host": "synthetic", "device": DEVICE,
            "ceilings": None, "results": results}
