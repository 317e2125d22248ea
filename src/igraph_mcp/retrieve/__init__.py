"""retrieve package."""
