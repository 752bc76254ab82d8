"""The bot API: accounts' HTTP calls for a table's whole life (challenges, seeks,
joining, starting, one's games and seat's view), competition entries and an account's
event stream, under ``/api/v1/``, with its OpenAPI document (docs/bots.md)."""
