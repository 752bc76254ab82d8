"""Play: the home page now; accounts, lobby, tables and live play over Channels later."""
