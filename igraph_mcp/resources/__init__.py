"""resources package."""
