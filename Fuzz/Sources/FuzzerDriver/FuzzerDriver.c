// Intentionally empty: the target only exports FuzzerDriver.h.
