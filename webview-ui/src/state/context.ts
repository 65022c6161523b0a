import { createContext, useContext } from "react";
import type { Controller } from "./controller";

export const ControllerContext = createContext<Controller | null>(null);

export function useController(): Controller {
  const c = useContext(ControllerContext);
  if (!c) throw new Error("useController outside ControllerContext");
  return c;
}
