try {
  await tools.fail({ message: "disk quota exceeded" });
  return "unexpected success";
} catch (e) {
  if (e instanceof ToolCallError) {
    return { isToolCallError: true, toolName: e.toolName, message: e.message, isError: e instanceof Error };
  }
  throw e;
}
