print("PAMHarness: not written yet")
