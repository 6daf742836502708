import { Type, type Static } from 'typebox';

export const McpSwitchSchema = Type.Object(
  { mcpEnabled: Type.Boolean({ description: 'whether AI agents may reach the organization through /mcp (the service must have MCP_ENABLED too)' }) },
  { $id: 'McpSwitch' },
);
export type McpSwitchDto = Static<typeof McpSwitchSchema>;
export const McpSwitchBody = Type.Object({ mcpEnabled: Type.Boolean() });

/** RFC 9728 protected-resource metadata: where a client learns how to get a token for /mcp. */
export const ProtectedResourceSchema = Type.Object(
  {
    resource: Type.String({ description: 'the MCP endpoint, the audience tokens must be for' }),
    authorization_servers: Type.Array(Type.String(), { description: 'issuers of tokens for this resource' }),
    bearer_methods_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    resource_name: Type.String(),
    resource_documentation: Type.String(),
  },
  { $id: 'ProtectedResourceMetadata' },
);

/** A JSON-RPC 2.0 message or batch; the MCP SDK validates the rest. */
export const JsonRpcBody = Type.Union([Type.Object({ jsonrpc: Type.Literal('2.0') }, { additionalProperties: true }), Type.Array(Type.Object({}, { additionalProperties: true }))], {
  description: 'a JSON-RPC 2.0 request, notification or response of the Model Context Protocol (or a batch)',
});

export const McpHeaders = Type.Object({
  'mcp-session-id': Type.Optional(Type.String({ maxLength: 200, description: 'the session, from the initialize answer' })),
  'mcp-protocol-version': Type.Optional(Type.String({ maxLength: 40, description: 'the protocol version negotiated at initialize' })),
});

export const McpStream = {
  description: 'a JSON-RPC answer (application/json) or a stream of them (text/event-stream)',
  content: { 'application/json': { schema: Type.Unknown() }, 'text/event-stream': { schema: Type.String() } },
};
