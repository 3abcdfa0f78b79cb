print("replay: under construction")
