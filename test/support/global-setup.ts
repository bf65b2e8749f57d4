// Filled in by the store: prepares a migrated database template shared by every test file.
export default async function setup(): Promise<void> {}
