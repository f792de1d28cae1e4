print("localauth-bench: not written yet")
