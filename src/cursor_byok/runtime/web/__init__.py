"""The web the server reaches for the model: a fetch that cannot be turned
against the server's own network (`fetch`, judged by `addresses`, bounded
by `limits`), pages made markdown (`pages`), and search (`search`, the
SearXNG and Tavily backends in `backends`). Plain functions and types, no
protocol: the tools that offer them to the model are built on top."""
