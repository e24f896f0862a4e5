"""Grade book scripts of the Kantonsschule."""
