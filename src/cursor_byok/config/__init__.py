"""What a server is set up with: the configuration file and environment, its
secrets, the guards on what it logs and answers, and model routing."""
