"""Loaders: every dataset and prediction format becomes the same `Example` / `Prediction` records."""
