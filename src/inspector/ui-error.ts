/** The inspector's refusals (host-contract/operator-page.ts): JSON `{ ok:false, code, error }` below `<base>/api/`, a small page naming the code elsewhere. */
import type { Request, Response } from "express";
import { sendOperatorError } from "../host-contract/operator-page";

/** An error answer of the page or data route `req` asked for, mounted at `res.locals.base`. */
export function sendUiError(req: Request, res: Response, status: number, code: string, message: string): void {
  sendOperatorError(req, res, res.locals.base ?? "/ui", status, code, message);
}
