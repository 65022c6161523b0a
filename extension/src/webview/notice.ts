// Which background-task events raise a notification, by the cairn.notifyBackgroundTasks setting
// (README, "Several tasks at once"): all (waits, finishes, failures), waiting only, or off.

export type NoticeSetting = "off" | "waiting" | "all";
export type NoticeKind = "waiting" | "done" | "failed";

export function shouldNotify(setting: NoticeSetting, kind: NoticeKind): boolean {
  if (setting === "off") return false;
  return setting === "all" || kind === "waiting";
}
