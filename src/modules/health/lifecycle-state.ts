import { Injectable } from '@nestjs/common';

/** Whether this instance still takes new sessions; flipped when it starts draining on SIGTERM. */
@Injectable()
export class LifecycleState {
  private draining = false;

  get isDraining(): boolean {
    return this.draining;
  }

  startDraining(): void {
    this.draining = true;
  }
}
