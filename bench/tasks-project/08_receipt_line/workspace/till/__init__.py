"""Till program of the farm shop."""
