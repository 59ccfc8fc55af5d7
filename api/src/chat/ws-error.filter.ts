import { type ArgumentsHost, Catch, Logger, type WsExceptionFilter } from '@nestjs/common';
import { encodeFrame, errorFrame, ErrorCode, FrameErrorMessage } from '@taco/protocol';
import { WebSocket } from 'ws';

/**
 * The last line of defence for a frame handler that throws: the client gets an `unavailable`
 * error frame, the failure is logged, and the connection and the process carry on.
 */
@Catch()
export class WsErrorFrameFilter implements WsExceptionFilter {
  private readonly logger = new Logger('ChatGateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    this.logger.error(
      `A frame handler failed: ${exception instanceof Error ? exception.message : String(exception)}`,
      exception instanceof Error ? exception.stack : undefined,
    );
    const socket = host.switchToWs().getClient<WebSocket>();
    if (socket.readyState !== WebSocket.OPEN) return;
    socket.send(
      encodeFrame(
        errorFrame({ code: ErrorCode.Unavailable, message: FrameErrorMessage.unavailable }),
      ),
    );
  }
}
