import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import { McpServerStatus, McpService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { say, SayKind, snapshot } from "../test/fixtures";
import { flushAsync, renderApp } from "../test/renderApp";

const everything = {
  name: "everything",
  status: McpServerStatus.CONNECTED,
  transport: "stdio",
  target: "mcp-server-everything stdio",
  timeoutSeconds: 60,
  instructions: "Try the echo tool first.",
  tools: [
    { name: "echo", description: "Echoes back the input string", inputSchema: "{}", autoApprove: false },
    { name: "get-sum", description: "Returns the sum of two numbers", inputSchema: "{}", autoApprove: true },
  ],
  resources: [{ uri: "demo://resource/static/document/a.md", name: "a.md" }],
  resourceTemplates: [{ uriTemplate: "demo://resource/dynamic/text/{resourceId}", name: "Dynamic Text Resource" }],
  prompts: [{ name: "simple-prompt", description: "A prompt with no arguments" }],
};

const broken = {
  name: "broken",
  status: McpServerStatus.DISCONNECTED,
  transport: "stdio",
  target: "node missing.js",
  timeoutSeconds: 60,
  error: "the server exited: exit status 1",
  stderr: "Error: Cannot find module 'missing.js'",
};

async function openMcp() {
  const app = await renderApp();
  app.fake.on(McpService.method.setMcpToolAutoApprove, () => ({}));
  app.fake.on(McpService.method.toggleMcpServer, () => ({}));
  app.fake.on(McpService.method.restartMcpServer, () => ({}));
  app.fake.on(McpService.method.setMcpServerTimeout, () => ({}));
  app.fake.on(McpService.method.addRemoteMcpServer, () => ({}));
  app.fake.on(McpService.method.importMcpSettings, () => ({ added: ["fetch"], skipped: ["everything"] }));
  app.fake.on(McpService.method.openMcpSettings, () => ({ path: "/data/mcp_settings.json", opened: true }));
  await app.user.click(screen.getByRole("button", { name: "MCP Servers" }));
  const stream = app.fake.lastStream(McpService.method.watchMcpServers);
  stream.push({ servers: [broken, everything], settingsPath: "/data/mcp_settings.json" });
  await flushAsync();
  return { ...app, stream };
}

describe("MCP view", () => {
  it("shows each server's status, error, stderr, tools, resources and prompts", async () => {
    await openMcp();
    const ev = screen.getByRole("listitem", { name: "everything" });
    expect(within(ev).getByRole("img", { name: "connected" })).toBeTruthy();
    expect(within(ev).getByText("Echoes back the input string")).toBeTruthy();
    expect(within(ev).getByText("demo://resource/dynamic/text/{resourceId}")).toBeTruthy();
    expect(within(ev).getByText("/mcp:everything:simple-prompt")).toBeTruthy();
    expect(within(ev).getByText("Try the echo tool first.")).toBeTruthy();
    expect((within(ev).getByRole("checkbox", { name: "Auto-approve get-sum" }) as HTMLInputElement).checked).toBe(true);
    const br = screen.getByRole("listitem", { name: "broken" });
    expect(within(br).getByRole("img", { name: "disconnected" })).toBeTruthy();
    expect(within(br).getByText("the server exited: exit status 1")).toBeTruthy();
    expect(within(br).getByText("Error: Cannot find module 'missing.js'")).toBeTruthy();
  });

  it("sends each change as an RPC and renders the state the stream brings back", async () => {
    const { user, fake, stream } = await openMcp();
    const ev = screen.getByRole("listitem", { name: "everything" });
    await user.click(within(ev).getByRole("checkbox", { name: "Auto-approve echo" }));
    expect(fake.callsTo(McpService.method.setMcpToolAutoApprove)).toMatchObject([{ server: "everything", tool: "echo", autoApprove: true }]);
    await user.click(within(ev).getByRole("button", { name: "Restart everything" }));
    expect(fake.callsTo(McpService.method.restartMcpServer)).toMatchObject([{ name: "everything" }]);
    await user.click(within(ev).getByRole("checkbox", { name: "Enable everything" }));
    expect(fake.callsTo(McpService.method.toggleMcpServer)).toMatchObject([{ name: "everything", disabled: true }]);
    await user.selectOptions(within(ev).getByRole("combobox", { name: "Timeout of everything" }), "120");
    expect(fake.callsTo(McpService.method.setMcpServerTimeout)).toMatchObject([{ name: "everything", timeoutSeconds: 120 }]);

    stream.push({ servers: [{ ...everything, status: McpServerStatus.DISABLED, disabled: true }] });
    await flushAsync();
    expect(screen.getByRole("img", { name: "disabled" })).toBeTruthy();
    expect(screen.queryByRole("listitem", { name: "broken" })).toBeNull();

    await user.click(screen.getByRole("button", { name: /Edit settings/ }));
    expect(fake.callsTo(McpService.method.openMcpSettings)).toMatchObject([{ hostId: "host-1" }]);

    const add = screen.getByRole("form", { name: "Add remote server" });
    await user.type(within(add).getByRole("textbox", { name: "Server name" }), "remote");
    await user.type(within(add).getByRole("textbox", { name: "Server URL" }), "https://example.com/sse");
    await user.selectOptions(within(add).getByRole("combobox", { name: "Transport" }), "sse");
    await user.click(within(add).getByRole("button", { name: "Add" }));
    expect(fake.callsTo(McpService.method.addRemoteMcpServer)).toMatchObject([{ name: "remote", url: "https://example.com/sse", transport: "sse" }]);

    const imp = screen.getByRole("form", { name: "Import Cline settings" });
    await user.type(within(imp).getByRole("textbox", { name: "Settings file" }), "/home/u/cline_mcp_settings.json");
    await user.click(within(imp).getByRole("button", { name: "Import" }));
    expect(await screen.findByText("Imported 1: fetch; skipped everything")).toBeTruthy();
  });

  it("offers MCP prompts in the / menu", async () => {
    const { user, fake } = await renderApp();
    fake.on(WorkspaceService.method.listSlashCommands, () => ({
      commands: [{ name: "newtask", description: "Start a new task" }, { name: "mcp:everything:simple-prompt", description: "A prompt with no arguments" }],
    }));
    await user.type(screen.getByRole("textbox", { name: /message/i }), "/mcp");
    await flushAsync();
    expect(await screen.findByText("/mcp:everything:simple-prompt")).toBeTruthy();
  });

  it("names the tool of an auto-approved call and shows its progress", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    await push(
      snapshot([
        say(0, SayKind.TASK, { text: "t" }),
        say(1, SayKind.MCP_SERVER_REQUEST_STARTED, { payload: { case: "mcp", value: { serverName: "everything", toolName: "echo" } } }),
        say(2, SayKind.MCP_NOTIFICATION, { text: "2/2 step 2", payload: { case: "mcp", value: { serverName: "everything", toolName: "echo" } } }),
        say(3, SayKind.MCP_SERVER_REQUEST_STARTED, { payload: { case: "mcp", value: { serverName: "everything", uri: "demo://x" } } }),
      ]),
    );
    expect(screen.getByText("Using echo on everything")).toBeTruthy();
    expect(screen.getByText("2/2 step 2")).toBeTruthy();
    expect(screen.getByText("Reading demo://x on everything")).toBeTruthy();
  });
});
