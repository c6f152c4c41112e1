// The version handshake: the server names its version in `initialize` (serverInfo); the
// extension compares it with its own and, when the major or minor version differs, says plainly
// which side to upgrade. Kept free of the vscode module so that it is unit-tested with plain node.

export const EXTENSION_ID = "colosseum.colosseum-latex";
export const SERVER_PACKAGE = "colosseum-latex";
const UPGRADE_SERVER = `upgrade the server: \`pipx upgrade ${SERVER_PACKAGE}\` (or \`uv tool upgrade ${SERVER_PACKAGE}\`)`;
const UPGRADE_EXTENSION = "upgrade the extension: Extensions view, Colosseum for LaTeX, Update";

/** [major, minor, patch] of "1.2.3" (missing or non-numeric parts read as 0). */
export function versionParts(version: string): number[] {
  const parts = version.trim().split(/[.+-]/).slice(0, 3).map((part) => Number.parseInt(part, 10));
  while (parts.length < 3) {
    parts.push(0);
  }
  return parts.map((part) => (Number.isNaN(part) ? 0 : part));
}

/** The sentence to show when the server and the extension do not fit (undefined when they do:
 * the same major and minor version; patch releases always fit). */
export function versionMismatch(
  extensionVersion: string,
  serverInfo: { name: string; version?: string } | undefined,
): string | undefined {
  const serverVersion = serverInfo?.version;
  if (!serverVersion) {
    return `Colosseum: the language server did not report its version (it is older than this extension ${extensionVersion}): ${UPGRADE_SERVER}.`;
  }
  const [serverMajor, serverMinor] = versionParts(serverVersion);
  const [ownMajor, ownMinor] = versionParts(extensionVersion);
  if (serverMajor === ownMajor && serverMinor === ownMinor) {
    return undefined;
  }
  const serverIsOlder = serverMajor < ownMajor || (serverMajor === ownMajor && serverMinor < ownMinor);
  return (
    `Colosseum: the language server is ${serverVersion} and this extension is ${extensionVersion}: ` +
    `${serverIsOlder ? UPGRADE_SERVER : UPGRADE_EXTENSION}.`
  );
}
