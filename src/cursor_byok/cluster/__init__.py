"""More than one process on one database: conversation leases, the leased
runner, and the appends and output relayed between processes."""
