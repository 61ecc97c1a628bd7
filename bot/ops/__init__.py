"""Running the bot in production: settings, the HTTP server, metrics and logs."""
