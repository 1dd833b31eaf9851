import { Duration } from 'aws-cdk-lib';
import { EventType } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { Construct } from 'constructs';
import { uploadedFileFinalizer } from '../src/files/routes.ts';
import { PaperflowFunction } from './paperflow-function.ts';
import type { PaperflowStorage } from './paperflow-storage.ts';
import { bindResourceAccess } from './route-resource-access.ts';

/**
 * Upload sessions (pre-signed POST straight to S3) end here: the bucket's ObjectCreated notification
 * invokes the finalizer, which sniffs the object, enforces the size again and readies or blocks it.
 */
export class UploadedFileFinalizer extends Construct {
  readonly function: PaperflowFunction;

  constructor(scope: Construct, id: string, props: { storage: PaperflowStorage }) {
    super(scope, id);
    this.function = new PaperflowFunction(this, 'Function', {
      handlerModule: uploadedFileFinalizer.handler,
      description: 'Sniffs and finalizes files uploaded through upload sessions',
      timeout: Duration.minutes(2),
    });
    bindResourceAccess(this.function, uploadedFileFinalizer.access, { storage: props.storage });
    props.storage.filesBucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(this.function), {
      prefix: uploadedFileFinalizer.objectKeyPrefix,
    });
  }
}
