/**
 * Middleware stages run in order as one request handler — what an Express Router
 * with one `use()` per stage does, without its path matching and layer
 * bookkeeping (stages that match every path: that cost a tenth of an accept).
 * Stages keep the middleware contract: `next()` continues, `next(err)` goes to
 * `onError`, `next("router")` leaves the pipeline (the host's next handler runs),
 * and a throw is `next(err)`. After the last stage, `last` runs; its rejection
 * goes to `onError`.
 *
 * @example
 *   app.use("/hooks", stagePipeline([begin, authenticate], serve, renderError));
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";

export type ErrorStage = (e: unknown, req: Request, res: Response, next: NextFunction) => void;

export function stagePipeline(stages: readonly RequestHandler[], last: (req: Request, res: Response) => Promise<void>, onError: ErrorStage): RequestHandler {
  return function pipeline(req: Request, res: Response, done: NextFunction): void {
    let at = 0;
    const fail = (e: unknown) => onError(e, req, res, done);
    const next = (e?: unknown): void => {
      if (e === "router") return done();
      if (e) return fail(e);
      const stage = stages[at++];
      if (!stage) {
        last(req, res).catch(fail);
        return;
      }
      try {
        void stage(req, res, next);
      } catch (thrown) {
        fail(thrown);
      }
    };
    next();
  };
}
