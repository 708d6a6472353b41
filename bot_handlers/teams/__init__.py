"""Microsoft Teams adapter: Bot Framework activities and Adaptive Card rendering of the core's answers."""
