"""embed package."""
