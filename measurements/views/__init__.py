"""Web views (thin): selectors fetch, templates render. One module per page family."""
