"""The model-counting track: Model Counting Competition answers (a count, exact or approximate)
on counting instances, the model counters, and the competition's benchmark bundle."""
