import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

/** The document is generated once the app's routes exist (configureApp), then served as-is. */
@Injectable()
export class OpenApiDocumentHolder {
  private doc: OpenAPIObject | null = null;

  get document(): OpenAPIObject {
    if (!this.doc) throw new Error('OpenAPI document requested before the app was configured');
    return this.doc;
  }

  set document(doc: OpenAPIObject) {
    this.doc = doc;
  }
}
