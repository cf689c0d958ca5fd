"""Drives the gate's remote MCP endpoint with the Python MCP SDK (`mcp` on PyPI).

Usage: python remote_mcp_client.py <url> <steps as JSON>, the session token in GATE_SESSION_TOKEN.
Each step is run in order on one connection and its outcome printed as a line of JSON:

  {"op": "list"}                                  -> {"tools": [names]}
  {"op": "call", "name": ..., "arguments": {...}}  -> {"is_error": bool, "text": ...}
  {"op": "call_until_answered", ...}              -> the same, made again while told "call again"
  {"op": "task", "name": ..., "arguments": {...}}  -> {"task_id": ..., "status": ...}
  {"op": "task_get", "task_id": ...}              (a task id "last": the last task created)               -> {"status": ..., "message": ...}
  {"op": "task_result", "task_id": ...}            -> {"is_error": bool, "text": ...}
  {"op": "task_cancel", "task_id": ...}            -> {"status": ...}
  {"op": "wait_list_changed", "seconds": n}        -> {"list_changed": bool}
  {"op": "wait_line"}                              -> reads a line from stdin (the test's go-ahead)

A protocol error is printed as {"error": message}.
"""

import json
import os
import sys

import anyio
import httpx2
from mcp import types
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client


def text_of(result):
    return "".join(getattr(block, "text", "") for block in result.content)


async def main(url, steps):
    list_changed = anyio.Event()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            list_changed.set()

    headers = {"Authorization": f"Bearer {os.environ['GATE_SESSION_TOKEN']}"}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=120.0))
    transport = streamable_http_client(url, http_client=http)
    tasks = []
    async with http, Client(transport, message_handler=on_message, cache=None) as client:
        for step in steps:
            try:
                out = await run(client, step, tasks, list_changed)
            except Exception as err:  # noqa: BLE001 - the test reads every failure
                out = {"error": str(err)}
            print(json.dumps(out), flush=True)


async def run(client, step, tasks, list_changed):
    op = step["op"]
    if step.get("task_id") == "last":
        step = {**step, "task_id": tasks[-1]}
    session = client.session
    if op == "list":
        return {"tools": [tool.name for tool in (await client.list_tools()).tools]}
    if op == "call":
        result = await client.call_tool(step["name"], step.get("arguments", {}))
        return {"is_error": bool(result.is_error), "text": text_of(result)}
    if op == "call_until_answered":
        for _ in range(60):
            result = await client.call_tool(step["name"], step.get("arguments", {}))
            if "make the same call again" not in text_of(result).lower():
                break
        return {"is_error": bool(result.is_error), "text": text_of(result)}
    if op == "task":
        # The SDK checks a tools/call result as a CallToolResult only, though 2025-11-25 answers a
        # task-augmented one with a CreateTaskResult: the request goes out through its dispatcher.
        params = {
            "name": step["name"],
            "arguments": step.get("arguments", {}),
            "task": {"ttl": 60000},
        }
        raw = await session._dispatcher.send_raw_request("tools/call", params, {"timeout": 60})
        created = types.CreateTaskResult.model_validate(raw, by_name=False)
        tasks.append(created.task.task_id)
        return {"task_id": created.task.task_id, "status": created.task.status}
    if op == "task_get":
        task = await session.send_request(
            types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=step["task_id"])),
            types.GetTaskResult,
        )
        return {"status": task.status, "message": task.status_message}
    if op == "task_result":
        result = await session.send_request(
            types.GetTaskPayloadRequest(
                params=types.GetTaskPayloadRequestParams(task_id=step["task_id"])
            ),
            types.CallToolResult,
            request_read_timeout_seconds=90,
        )
        return {"is_error": bool(result.is_error), "text": text_of(result)}
    if op == "task_cancel":
        task = await session.send_request(
            types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=step["task_id"])),
            types.CancelTaskResult,
        )
        return {"status": task.status}
    if op == "wait_list_changed":
        with anyio.move_on_after(step.get("seconds", 30)):
            await list_changed.wait()
        return {"list_changed": list_changed.is_set()}
    if op == "wait_line":
        line = await anyio.to_thread.run_sync(sys.stdin.readline)
        return {"read": line.strip()}
    raise ValueError(f"unknown step {op!r}")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], json.loads(sys.argv[2]))
