"""The team dashboard at `/ui`: server-rendered pages over the store, signed
in with the same tokens the API takes."""
