"""IT onboarding scripts."""
