"""Runs scim2-tester's checks against a SCIM server and prints each result as a JSON line.

Usage: scim-check.py <base URL> (the bearer token in SCIM_TOKEN). Exits 0 whatever the checks
found: the test reads the lines and decides.
"""

import json
import os
import sys

from httpx2 import Client
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import check_server


def main() -> None:
    base = sys.argv[1]
    token = os.environ["SCIM_TOKEN"]
    http = Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    client = SyncSCIMClient(http)
    for result in check_server(client, raise_exceptions=False):
        print(
            json.dumps(
                {
                    "status": result.status.name,
                    "title": result.title,
                    "resource_type": result.resource_type,
                    "reason": result.reason,
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
