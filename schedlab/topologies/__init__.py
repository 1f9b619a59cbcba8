"""Reserved for later issues (see ../shared/DESIGN.md)."""
