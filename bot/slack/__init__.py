"""The Slack face: the Bolt app, its listeners by surface, the flows they run, the cards."""
