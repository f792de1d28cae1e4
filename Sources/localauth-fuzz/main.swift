print("localauth-fuzz: not written yet")
